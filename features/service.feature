Feature: One stateless service
  A single deployment is both the authorization server, which issues tokens,
  and the resource server, which serves the API. It keeps no session: a
  request counts as authenticated only when it carries a valid access token
  in the Authorization: Bearer header.

  @spec @SVC-1 @API-1
  Scenario: The token endpoint and the API are served by the same deployment
    Given the user has a token
    When a caller reads the API root
    Then the answer has status 200
    And the answer links to the events

  @spec @SVC-2
  Scenario: Resources carry their links as HAL
    When a caller reads the API root
    Then the answer is a HAL resource whose links are keyed by relation name, each with an href

  @spec @SVC-4
  Scenario: No answer sets a cookie
    Given the user has a token
    When a caller reads the API root
    And the user sends a request that needs a token
    Then no answer in this scenario set a cookie

  @spec @SVC-4 @AUTH-4
  Scenario: Without the token, nothing remembers the caller
    Given the user has a token
    And the user sends a request that needs a token
    When the same request is sent without the token, with every cookie received so far
    Then the request is refused as unauthenticated

  @spec @SVC-4
  Scenario: The token is only read from the Authorization header
    Given the user has a token
    When the token is sent as the query parameter "access_token" of a request that needs a token
    Then the request is refused as unauthenticated

  @spec @SVC-6 @AUTH-5
  Scenario: The documentation page is public
    When a caller reads the documentation page
    Then the answer has status 200
    And the answer is an HTML page

  @spec @AUTH-5
  Scenario: A bad Authorization header does not keep the documentation away
    When a caller reads the documentation page with the Authorization header "Bearer not-a-real-token"
    Then the answer has status 200
